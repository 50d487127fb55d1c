/** Word lists of the demo organization (neutral, made-up names). */

export const FIRST_NAMES = ['Ada', 'Ben', 'Chloe', 'Dev', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kira', 'Liam', 'Maya', 'Noah', 'Olga', 'Priya', 'Quinn', 'Rosa', 'Sam', 'Tariq', 'Uma', 'Victor', 'Wen', 'Yara', 'Zoe', 'Amir', 'Bea', 'Carlos', 'Dana', 'Emil'];
export const LAST_NAMES = ['Anders', 'Brook', 'Castillo', 'Dube', 'Eriksen', 'Fischer', 'Garcia', 'Haddad', 'Ito', 'Jensen', 'Kowalski', 'Lopez', 'Mensah', 'Nakamura', 'Okafor', 'Petrov', 'Quist', 'Rossi', 'Silva', 'Tanaka', 'Umar', 'Varga', 'Wong', 'Xu', 'Young', 'Zimmer'];
export const TITLES = ['CEO', 'CTO', 'CFO', 'VP Sales', 'VP Engineering', 'Head of Marketing', 'Sales Manager', 'Account Executive', 'Operations Manager', 'Product Manager', 'Engineer', 'Director of IT'];
export const INDUSTRIES = ['Software', 'Manufacturing', 'Healthcare', 'Finance', 'Retail', 'Logistics', 'Education', 'Energy'];
export const COMPANY_A = ['Blue', 'North', 'Bright', 'Iron', 'Silver', 'Green', 'Rapid', 'Summit', 'Harbor', 'Nova', 'Pioneer', 'Cedar', 'Atlas', 'Vertex', 'Lumen'];
export const COMPANY_B = ['Labs', 'Systems', 'Works', 'Analytics', 'Logistics', 'Health', 'Dynamics', 'Foods', 'Energy', 'Robotics', 'Capital', 'Media'];
export const CITIES = ['Berlin', 'Boston', 'Austin', 'Toronto', 'Lisbon', 'Dublin', 'Denver', 'Seattle', 'Madrid', 'Oslo'];
export const TIME_ZONES = ['America/New_York', 'America/Chicago', 'America/Los_Angeles', 'Europe/Berlin', 'Europe/London', 'Europe/Lisbon'];
export const SOURCES = ['Webinar', 'Conference', 'Referral', 'Inbound', 'Outbound'];
export const TAGS = ['vip', 'partner', 'trial', 'churn-risk', 'expansion'];
export const USERS: [string, string][] = [['Olive', 'Owner'], ['Sam', 'Seller'], ['Rita', 'Rep'], ['Mo', 'Manager'], ['Ana', 'Analyst'], ['Bo', 'Builder']];
export const STAGES = ['New', 'Contacted', 'Engaged', 'Qualified', 'Customer'];
export const PERSONAS = ['Economic Buyer', 'Champion', 'Technical Evaluator'];
export const SEQUENCES: [string, string][] = [['Inbound Follow-up', 'Fast follow-up for inbound leads'], ['Outbound Enterprise', 'Five-touch outbound for enterprise accounts'], ['Event Invite', 'Invite prospects to the spring event']];
